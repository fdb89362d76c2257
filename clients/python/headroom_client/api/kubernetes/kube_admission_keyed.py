from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.admission_review_in import AdmissionReviewIn
from ...models.admission_review_out import AdmissionReviewOut
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    api_key: str,
    cluster_id: str,
    *,
    body: AdmissionReviewIn,
    timeout: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    json_timeout: None | str | Unset
    if isinstance(timeout, Unset):
        json_timeout = UNSET
    else:
        json_timeout = timeout
    params["timeout"] = json_timeout

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/kubernetes/{api_key}/clusters/{cluster_id}/admission".format(
            api_key=quote(str(api_key), safe=""),
            cluster_id=quote(str(cluster_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AdmissionReviewOut | Problem | None:
    if response.status_code == 200:
        response_200 = AdmissionReviewOut.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AdmissionReviewOut | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    api_key: str,
    cluster_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AdmissionReviewIn,
    timeout: None | str | Unset = UNSET,
) -> Response[AdmissionReviewOut | Problem]:
    """Validating admission webhook (AdmissionReview v1) for Deployments on a moment-admission cluster

    Args:
        api_key (str): An API key, for clients that cannot send headers.
        cluster_id (str):
        timeout (None | str | Unset): The API server's call timeout (e.g. 10s); the answer comes
            within half of it.
        body (AdmissionReviewIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AdmissionReviewOut | Problem]
    """

    kwargs = _get_kwargs(
        api_key=api_key,
        cluster_id=cluster_id,
        body=body,
        timeout=timeout,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    api_key: str,
    cluster_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AdmissionReviewIn,
    timeout: None | str | Unset = UNSET,
) -> AdmissionReviewOut | Problem | None:
    """Validating admission webhook (AdmissionReview v1) for Deployments on a moment-admission cluster

    Args:
        api_key (str): An API key, for clients that cannot send headers.
        cluster_id (str):
        timeout (None | str | Unset): The API server's call timeout (e.g. 10s); the answer comes
            within half of it.
        body (AdmissionReviewIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AdmissionReviewOut | Problem
    """

    return sync_detailed(
        api_key=api_key,
        cluster_id=cluster_id,
        client=client,
        body=body,
        timeout=timeout,
    ).parsed


async def asyncio_detailed(
    api_key: str,
    cluster_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AdmissionReviewIn,
    timeout: None | str | Unset = UNSET,
) -> Response[AdmissionReviewOut | Problem]:
    """Validating admission webhook (AdmissionReview v1) for Deployments on a moment-admission cluster

    Args:
        api_key (str): An API key, for clients that cannot send headers.
        cluster_id (str):
        timeout (None | str | Unset): The API server's call timeout (e.g. 10s); the answer comes
            within half of it.
        body (AdmissionReviewIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AdmissionReviewOut | Problem]
    """

    kwargs = _get_kwargs(
        api_key=api_key,
        cluster_id=cluster_id,
        body=body,
        timeout=timeout,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    api_key: str,
    cluster_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: AdmissionReviewIn,
    timeout: None | str | Unset = UNSET,
) -> AdmissionReviewOut | Problem | None:
    """Validating admission webhook (AdmissionReview v1) for Deployments on a moment-admission cluster

    Args:
        api_key (str): An API key, for clients that cannot send headers.
        cluster_id (str):
        timeout (None | str | Unset): The API server's call timeout (e.g. 10s); the answer comes
            within half of it.
        body (AdmissionReviewIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AdmissionReviewOut | Problem
    """

    return (
        await asyncio_detailed(
            api_key=api_key,
            cluster_id=cluster_id,
            client=client,
            body=body,
            timeout=timeout,
        )
    ).parsed
